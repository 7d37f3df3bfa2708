#!/usr/bin/env bash
# Alternative: the account-session endpoint as a blueprint in its own module.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="${STRIPEBENCH_WORKDIR:-$PWD}"
cp "$here/app/templates/payments.html" "$work/templates/payments.html"
cp "$here/connect_sessions.py" "$work/connect_sessions.py"
"${PYTHON:-python}" - "$work/app.py" <<'PY'
import sys
from pathlib import Path
path = Path(sys.argv[1])
source = path.read_text()
marker = '\n\nif __name__ == "__main__":'
source = source.replace(marker, "\n\nfrom connect_sessions import sessions  # noqa: E402\n"
                        "app.register_blueprint(sessions)" + marker, 1)
source = source.replace('    return render_template("payments.html", groomer=groomer)',
                        '    return render_template("payments.html", groomer=groomer, '
                        'key=PUBLISHABLE_KEY)')
path.write_text(source)
PY
