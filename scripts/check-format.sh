#!/usr/bin/env bash
# Checks that every tracked C and C++ file is formatted as .clang-format says (clang-format from
# Debian, installed by scripts/setup.sh). Lists the files that are not, with the command that
# formats them, and exits 1; formats nothing itself. CI runs it from scripts/test.sh. Then checks
# that no two .cpp files of a folder define helpers of the same name (check-unity-names.py: the
# unity build would put them in one translation unit).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
command -v clang-format >/dev/null || {
  echo "check-format: clang-format is missing (scripts/setup.sh installs it)" >&2
  exit 1
}
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cpp' '*.hpp' '*.cc')
bad=()
for f in "${files[@]}"; do
  clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ "${#bad[@]}" -gt 0 ]; then
  echo "check-format: ${#bad[@]} file(s) not formatted as .clang-format says:" >&2
  printf '  %s\n' "${bad[@]}" >&2
  echo "format them with: clang-format -i ${bad[*]}" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files formatted"
python3 "$root/scripts/check-unity-names.py"
