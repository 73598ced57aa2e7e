# Sourced by the project's scripts: finds a JDK 25 and exports JAVA_HOME, or explains how to get one.
# Order: JAVA_HOME if it is 25 or later, then the JDKs under /usr/lib/jvm (newest first; PANAMA_JDK_DIR
# overrides that folder).
java_feature_version() {
  "$1/bin/java" -XshowSettings:properties -version 2>&1 \
    | awk -F'= ' '/java.specification.version/ { split($2, v, "."); print (v[1] == 1 ? v[2] : v[1]); exit }'
}

find_jdk25() {
  local candidate v seen=()
  for candidate in "${JAVA_HOME:-}" $(ls -d "${PANAMA_JDK_DIR:-/usr/lib/jvm}"/*/ 2>/dev/null | sort -rV); do
    candidate=${candidate%/}
    [[ -n $candidate && -x $candidate/bin/java && -x $candidate/bin/javac ]] || continue
    v=$(java_feature_version "$candidate")
    seen+=("$candidate (Java ${v:-?})")
    if [[ -n $v ]] && ((v >= 25)); then
      export JAVA_HOME=$candidate
      return 0
    fi
  done
  {
    echo "panama-rdma needs a JDK 25 or later (the FFM API; the build targets 25)."
    echo "JDKs found: ${seen[*]:-none}."
    echo "Install one (Debian trixie: apt-get install openjdk-25-jdk-headless; or Eclipse Temurin 25) and point"
    echo "JAVA_HOME at it, for example: export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64"
  } >&2
  return 1
}

# (Maven's own sun.misc.Unsafe warnings under JDK 25 are silenced for every ./mvnw by .mvn/jvm.config.)
