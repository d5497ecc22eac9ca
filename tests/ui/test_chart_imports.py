"""The chart module imports what Altair only looks up, so concurrent first visits cannot race.

Altair's ``to_dict`` reads numpy and pandas from ``sys.modules`` without importing them; the load
benchmark caught a session building a chart while another was still importing numpy. A fresh
interpreter shows whether importing ``ui.charts`` leaves both fully imported.
"""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_importing_the_charts_imports_numpy_and_pandas_whole():
    probe = (
        "import sys; import ui.charts; "
        "assert 'numpy' in sys.modules and hasattr(sys.modules['numpy'], 'ndarray'); "
        "assert 'pandas' in sys.modules and hasattr(sys.modules['pandas'], 'DataFrame')"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
