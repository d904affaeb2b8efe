#!/usr/bin/env bash
# An Apache Kafka broker (KRaft) from Maven Central's jars, run on the machine's Java.
set -euo pipefail
. "$(dirname "$0")/../env.sh"
LIB="$TOOLS/kafka-$KAFKA_VERSION/lib"
if [ ! -f "$LIB/.complete" ]; then
  command -v java >/dev/null || die "Java 17+ is required for the Kafka broker"
  command -v mvn >/dev/null || die "Maven is required to fetch the Kafka jars"
  log "fetching Kafka $KAFKA_VERSION jars from Maven Central"
  mkdir -p "$LIB"
  KAFKA_VERSION="$KAFKA_VERSION" mvn -q -B -f "$ROOT/tools/kafka/pom.xml" dependency:copy-dependencies \
    -DoutputDirectory="$LIB" -DincludeScope=runtime
  touch "$LIB/.complete"
fi
