"""``python -m jax_apple_fft``: prints what to paste into a problem report."""

import faulthandler
import sys

from jax_apple_fft.problem_report import main

faulthandler.enable()  # a crash on the device still shows where it happened
sys.exit(main())
