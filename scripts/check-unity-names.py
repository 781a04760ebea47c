#!/usr/bin/env python3
"""Fails when two .cpp files of one folder define a free function or constant of the same name.

The build is a unity build (SPARSE_UNITY_BUILD, CMakeLists.txt): a target's sources are compiled
in batches, several files to one translation unit. Two file-local helpers of the same name then
meet. With the same signature that is a compile error, but with different ones it is an overload
set, and a call may silently pick the other file's function. Names unique per folder (a folder
is a target, or several) rule that out. Only definitions starting at column 0 are looked at, which
is where clang-format puts namespace-scope functions and constants; fuzz/ is left out (one file per target).
"""
import collections
import os
import re
import subprocess
import sys

DEFINITION = re.compile(
    r"^(?:(?:static|inline|constexpr|template\s*<[^>]*>)\s+)*"  # specifiers
    r"[A-Za-z_][\w:<>,\s*&]*?[\s*&]"  # the return type
    r"([A-Za-z_]\w*)\s*\("  # the name
)
# Constants at namespace scope: `constexpr auto kName = ...`, `const std::regex kName(...)`.
CONSTANT = re.compile(r"^(?:(?:static|inline)\s+)*(?:constexpr|const)\s[^=(){]*?([A-Za-z_]\w*)\s*[=({\[]")
NOT_NAMES = {"if", "for", "while", "switch", "return", "main", "operator"}


def main() -> int:
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    files = subprocess.run(
        ["git", "ls-files", "*.cpp", "*.cc"], cwd=root, capture_output=True, text=True, check=True
    ).stdout.split()
    by_folder = collections.defaultdict(lambda: collections.defaultdict(set))
    for path in files:
        if path.startswith("fuzz/"):
            continue
        with open(os.path.join(root, path), errors="replace") as f:
            for line in f:
                if line[:1] in ("", " ", "\t", "#", "/", "}", "\n"):
                    continue
                m = CONSTANT.match(line) or DEFINITION.match(line)
                if not m or m.group(1) in NOT_NAMES or m.group(1).isupper():
                    continue
                head = line.split("(")[0].split()
                if head and "::" in head[-1]:  # Class::Method or ns::Function: qualified
                    continue
                by_folder[os.path.dirname(path)][m.group(1)].add(os.path.basename(path))
    clashes = [
        (folder, name, sorted(where))
        for folder, names in sorted(by_folder.items())
        for name, where in sorted(names.items())
        if len(where) > 1
    ]
    for folder, name, where in clashes:
        print(f"check-unity-names: {folder}: `{name}` is defined in {', '.join(where)}", file=sys.stderr)
    if clashes:
        print(
            "check-unity-names: give each a name of its own, or share one definition (a unity build "
            "puts them in one translation unit)",
            file=sys.stderr,
        )
        return 1
    print(f"check-unity-names: {len(files)} files, no clashing helper names")
    return 0


if __name__ == "__main__":
    sys.exit(main())
