"""checks.py - the pass/fail counter the Python check scripts share
(tests/interop/interop.py, examples/check_examples.py)."""


class Checks:
    """Counts checks; a failed one prints what ran, the run goes on."""

    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, ok, what, detail=""):
        if ok:
            self.passed += 1
            print(f"ok: {what}")
        else:
            self.failed += 1
            print(f"FAIL: {what}")
            if detail:
                print("  " + detail.replace("\n", "\n  ").rstrip())
        return ok

    def finish(self):
        print(f"{self.passed} checks passed, {self.failed} failed")
        return 1 if self.failed else 0
