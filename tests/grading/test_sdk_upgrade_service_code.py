"""What the SDK-upgrade graders' stale-version scan reads: a service's code (its files and
what they load), never a tool, a note or another service beside it."""

from __future__ import annotations

import os
from pathlib import Path

from stripebench.grading.sdk_upgrade.service_code import (
    go_service,
    java_service,
    node_service,
    python_service,
)
from stripebench.grading.sdk_upgrade.upgraded import stale_versions


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def names(work: Path, files: list[Path]) -> list[str]:
    return sorted(p.relative_to(work).as_posix() for p in files)


def test_python_follows_imports_from_the_services_folder_and_the_workdir(tmp_path: Path
                                                                          ) -> None:
    write(tmp_path, {
        "services/payments.py": "import os\nimport stripe\nfrom shared import client\n"
                                "import helpers.views\nfrom .local import x\n",
        "services/shared.py": 'API = "2026-10-28.endive"\n',
        "helpers/__init__.py": "", "helpers/views.py": "from helpers import money\n",
        "helpers/money.py": 'OLD = "2022-08-01"\n',
        "services/local.py": "x = 1\n",
        "services/invoices.py": 'V = "2022-08-01"\n',  # another service
        "tools/record.py": '"""Before the upgrade: "2022-08-01"."""\n',  # a tool
    })
    files = python_service(tmp_path, tmp_path / "services" / "payments.py")
    assert names(tmp_path, files) == ["helpers/__init__.py", "helpers/money.py",
                                      "helpers/views.py", "services/local.py",
                                      "services/payments.py", "services/shared.py"]
    assert stale_versions(tmp_path, files, "2026-10-28.endive") == [
        "helpers/money.py: 2022-08-01"]


def test_python_code_that_does_not_parse_is_still_read(tmp_path: Path) -> None:
    write(tmp_path, {"services/payments.py": 'V = "2022-08-01"\ndef broken(:\n'})
    files = python_service(tmp_path, tmp_path / "services" / "payments.py")
    assert stale_versions(tmp_path, files, "x") == ["services/payments.py: 2022-08-01"]


def test_a_fifo_or_a_link_out_of_the_workdir_is_never_read(tmp_path: Path) -> None:
    work = tmp_path / "work"
    write(tmp_path, {"outside.py": 'V = "2022-08-01"\n',
                     "work/services/payments.py": "import outside\nimport pipe\n"})
    os.symlink(tmp_path / "outside.py", work / "services" / "outside.py")
    os.mkfifo(work / "services" / "pipe.py")
    files = python_service(work, work / "services" / "payments.py")
    assert names(work, files) == ["services/payments.py"]


def test_node_follows_relative_requires_and_imports(tmp_path: Path) -> None:
    write(tmp_path, {
        "services/payments.js": "const S = require('stripe');\n"
                                "const c = require('./lib/client');\n"
                                "import v from '../config/versions.json';\n",
        "services/lib/client.js": "module.exports = {};\n",
        "config/versions.json": '{"old": "2022-08-01"}\n',
        "services/invoices.js": "const V = '2022-08-01';\n",
        "tools/record.js": "// was '2022-08-01'\n",
    })
    files = node_service(tmp_path, tmp_path / "services" / "payments.js")
    assert names(tmp_path, files) == ["config/versions.json", "services/lib/client.js",
                                      "services/payments.js"]


def test_go_reads_the_package_and_the_module_packages_it_imports(tmp_path: Path) -> None:
    write(tmp_path, {
        "go.mod": "module backoffice\n\ngo 1.23\n",
        "services/payments/main.go": 'package main\n\nimport (\n\t"fmt"\n\t"backoffice/'
                                     'internal/client"\n)\n',
        "services/payments/main_test.go": 'package main\nconst v = "2020-08-27"\n',
        "internal/client/client.go": 'package client\n\nimport "backoffice/internal/ver"\n',
        "internal/ver/ver.go": 'package ver\nconst Old = "2020-08-27"\n',
        "services/invoices/main.go": 'package main\nconst v = "2020-08-27"\n',
        "tools/record/main.go": 'package main\n// was "2020-08-27"\n',
    })
    files = go_service(tmp_path, tmp_path / "services" / "payments")
    assert names(tmp_path, files) == ["internal/client/client.go", "internal/ver/ver.go",
                                      "services/payments/main.go"]


def test_java_reads_what_the_build_compiles_but_other_services(tmp_path: Path) -> None:
    write(tmp_path, {
        "src/main/java/backoffice/Payments.java": "class Payments {}\n",
        "src/main/java/backoffice/Api.java": "class Api {}\n",
        "src/main/java/backoffice/Invoices.java": "class Invoices {}\n",
        "tools/RecordVersions.java": "// was \"2020-08-27\"\n",
        "target/classes/Old.java": "\"2020-08-27\"\n",
    })
    files = java_service(tmp_path, ["Invoices.java", "Subscriptions.java"])
    assert names(tmp_path, files) == ["src/main/java/backoffice/Api.java",
                                      "src/main/java/backoffice/Payments.java"]
