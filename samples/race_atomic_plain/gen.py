#!/usr/bin/env python3
# race_atomic_plain has no inputs; the expected outcome is a diagnosis (see case.json).
