/// RP116: a suppression comment that silences nothing.
enum UnusedSuppression {
    static let rule = LintRule(
        id: "RP116", name: "unused-suppression", defaultSeverity: .warning,
        summary: "An inline suppression comment silences nothing.",
        explanation: """
            `# retry-policy: disable=RP105` silences one rule on its line (or, on a line of its own, \
            on the next line); `# retry-policy: disable-file=RP105` silences it in the whole file. \
            When the problem is fixed the comment stays behind and would hide the next real problem \
            on that line, so a suppression that matched no finding is itself reported.

            Fix: delete the comment.
            """)
}
