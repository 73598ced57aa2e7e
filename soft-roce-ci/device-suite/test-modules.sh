#!/bin/bash
# Runs on the host when the device suite is packaged (pom.xml, profile testbed), once target/lib is assembled: writes
# LIB_DIR/test-modules.txt, a line per test jar: the jar, the module its tests belong to (the module of the jar of the
# same name without -tests) and the packages of its classes. run-suite.sh patches each test jar into its module and
# opens those packages to JUnit, so that the suite runs on the module path in one JVM: a test jar shares packages
# with its module jar, so it cannot be a module of its own beside it.
set -euo pipefail
lib=${1:?usage: test-modules.sh LIB_DIR}
jar=${JAVA_HOME:+$JAVA_HOME/bin/}jar
out="$lib/test-modules.txt"
: >"$out.tmp"
for tests in "$lib"/*-tests.jar; do
  main=${tests%-tests.jar}.jar
  [[ -f $main ]] || { echo "test-modules.sh: no module jar $main beside $tests" >&2; exit 1; }
  # "org.panamardma.verbs@0.1.0-SNAPSHOT jar:file:///...!/module-info.class"; an automatic module says otherwise
  module=$("$jar" --describe-module --file "$main" | head -n 1)
  [[ $module == *'!/module-info.class' ]] || { echo "test-modules.sh: $main is not a named module" >&2; exit 1; }
  module=${module%%[@ ]*}
  packages=$("$jar" --list --file "$tests" | grep '/[^/]*\.class$' | sed 's|/[^/]*$||' | sort -u | tr / . | paste -sd' ')
  echo "$(basename "$tests") $module $packages" >>"$out.tmp"
done
[[ -s $out.tmp ]] || { echo "test-modules.sh: no *-tests.jar in $lib" >&2; exit 1; }
mv "$out.tmp" "$out"
