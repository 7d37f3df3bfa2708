#!/usr/bin/env bash
# Oracle: stripe-java 33.3.0 in pom.xml, the three services rewritten for it and its API
# version, then built offline (the services restart for grading).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="${STRIPEBENCH_WORKDIR:-$PWD}"
cp "$here/pom.xml" "$work/pom.xml"
cp "$here/src/main/java/backoffice/"*.java "$work/src/main/java/backoffice/"
bash "$work/build.sh"
mkdir -p "$work/tools"
cp "$here/tools/RecordVersions.java" "$work/tools/"
