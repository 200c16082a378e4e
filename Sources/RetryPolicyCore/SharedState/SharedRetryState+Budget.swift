/// The ledger's budget port: what deciding asks of the retry budget,
/// whatever its style (the style's own rules answer, see
/// `RetryBudgetRules`). Without a budget every retry is free.
extension SharedRetryState {
    /// A failure the policy would retry happened. `driverPays`: the
    /// caller hands a payment that may wait to a driver that awaits it.
    @inline(__always)
    func recordFailure(driverPays: Bool) -> BudgetFailureMark {
        guard let budget else { return .unrecorded }
        return budget.configuration.rules.recordFailure(in: budget, deferring: driverPays && budget.paymentsWait)
    }

    /// Pays for the retry of the failure marked `mark`.
    @inline(__always)
    func payForRetry(
        after mark: BudgetFailureMark, kind: SDKError.Kind, isTimeout: Bool, at now: Timestamp?, driverPays: Bool
    ) -> BudgetCharge {
        guard let budget else { return .paid(0) }
        return budget.configuration.rules.payForRetry(
            after: mark, kind: kind, isTimeout: isTimeout, at: now, from: budget,
            deferring: driverPays && budget.paymentsWait)
    }

    /// The failure marked `mark` stops for another reason.
    @inline(__always)
    func abandon(_ mark: BudgetFailureMark) {
        guard let budget else { return }
        budget.configuration.rules.abandon(mark, in: budget)
    }

    /// Pays for a retry with no failure to price (a hedge on its timer, a
    /// retry code asks for).
    func payForUnpricedRetry(at now: Timestamp?, driverPays: Bool) -> BudgetCharge {
        guard let budget else { return .paid(0) }
        return budget.configuration.rules.payForUnpricedRetry(
            at: now, from: budget, deferring: driverPays && budget.paymentsWait)
    }

    /// A retry paid with `charge` will not start.
    func cancel(_ charge: BudgetCharge) {
        guard let budget else { return }
        budget.configuration.rules.cancel(charge, in: budget)
    }

    /// A request starts at `now`: a budget that counts requests deposits.
    func recordRequest(at now: Timestamp) {
        guard let budget else { return }
        budget.configuration.rules.recordRequest(at: now, in: budget)
    }

    /// A success after a retry that cost `lastRetryCost` (0: a first try).
    @inline(__always)
    func recordSuccess(lastRetryCost: Int) {
        guard let budget else { return }
        budget.configuration.rules.recordSuccess(lastRetryCost: lastRetryCost, in: budget)
    }
}
