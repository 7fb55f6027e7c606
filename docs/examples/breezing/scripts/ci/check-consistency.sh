#!/bin/bash
# A stand-in for a consistency check: harmless and fast.
test -f Plans.md && echo "check-consistency: Plans.md present"
