"""botocore's adaptive retry mode as an oracle for the Swift limiter.

Reads {"start": seconds, "events": [{"gap": seconds, "event": "send" |
"success" | "throttle"}, ...]} on stdin and replays it through botocore's
own ClientRateLimiter (botocore/retries/adaptive.py), CubicCalculator
(throttling.py), RateClocker and TokenBucket (bucket.py) on a clock that
only moves when told. Time advances by each event's gap, and by the wait a
send needs: a blocked sender holds its thread, so the next event follows
the wait. Prints one JSON object per event: {"delay": seconds} for a send,
{"fill_rate": r, "measured_rate": m} for a response.
"""

import json
import sys

import botocore
from botocore.exceptions import CapacityNotAvailableError
from botocore.retries import adaptive, bucket, throttling


class ManualClock:
    def __init__(self, now):
        self.now = now

    def current_time(self):
        return self.now

    def sleep(self, amount):
        self.now += amount


class ThrottlingFlag:
    """Stands in for botocore's ThrottlingErrorDetector: the event says."""

    def is_throttling_error(self, **kwargs):
        return kwargs["throttled"]


def main():
    scenario = json.load(sys.stdin)
    clock = ManualClock(scenario["start"])
    token_bucket = bucket.TokenBucket(max_rate=1, clock=clock)
    limiter = adaptive.ClientRateLimiter(
        rate_adjustor=throttling.CubicCalculator(starting_max_rate=0, start_time=clock.current_time()),
        rate_clocker=adaptive.RateClocker(clock),
        token_bucket=token_bucket,
        throttling_detector=ThrottlingFlag(),
        clock=clock,
    )
    results = []
    for event in scenario["events"]:
        clock.now += event["gap"]
        if event["event"] == "send":
            delay = 0.0
            if limiter._enabled:
                try:
                    token_bucket.acquire(block=False)
                except CapacityNotAvailableError:
                    # What the blocking acquire sleeps (on a real condition
                    # variable, so it cannot run on this clock): the shortfall
                    # at the fill rate; then it takes the token.
                    delay = token_bucket._sleep_amount(1)
                    clock.sleep(delay)
                    token_bucket._refill()
                    token_bucket._current_capacity -= 1
            results.append({"delay": delay})
        else:
            limiter.on_receiving_response(throttled=event["event"] == "throttle")
            results.append(
                {"fill_rate": token_bucket.max_rate, "measured_rate": limiter._rate_clocker.measured_rate}
            )
    json.dump({"botocore": botocore.__version__, "results": results}, sys.stdout)


if __name__ == "__main__":
    main()
