# A throwaway OpenSearch node for benchmarks, from Maven Central (no Docker, no download site):
# the integ-test-zip distribution plus the mapper-extras module it lacks (scaled_float), as the
# tests' local launch (test-support OpenSearchDistribution) assembles it. Plain HTTP, no security
# plugin, one node.
# Source it after throwaway-postgres.sh and tp_init (it uses tp_work, tp_as_pg and tp_free_port),
# then: to_start PORT [HEAP] [knn] (default heap 2g); to_url; to_stop from the caller's cleanup.
# With knn, the node also gets the k-NN plugin and the lang-painless module it extends (both
# from Maven Central), for clients that create their indexes with index.knn (pgstream does).

to_start() {
  local port="$1" heap="${2:-2g}" knn="${3:-}" version dist lib
  version="${OPENSEARCH_VERSION:-$(sed -n 's:.*<opensearch.version>\(.*\)</opensearch.version>.*:\1:p' "$root/pom.xml" | head -1)}"
  lib="$tp_work/opensearch-lib"
  (cd "$root" && ./mvnw -q -B -ntp dependency:copy -Dartifact="org.opensearch.distribution.integ-test-zip:opensearch:$version:zip" \
    -DoutputDirectory="$lib" && ./mvnw -q -B -ntp dependency:copy -Dartifact="org.opensearch.plugin:mapper-extras-client:$version" \
    -DoutputDirectory="$lib")
  unzip -q "$lib/opensearch-$version.zip" -d "$tp_work/opensearch-dist"
  dist="$(ls -d "$tp_work"/opensearch-dist/*/ | head -1)"
  to_home="${dist%/}"
  mkdir -p "$to_home/plugins" "$to_home/modules/mapper-extras" "$to_home/data" "$to_home/logs" "$to_home/tmp"
  cp "$lib/mapper-extras-client-$version.jar" "$to_home/modules/mapper-extras/"
  cat >"$to_home/modules/mapper-extras/plugin-descriptor.properties" <<EOF
description=Adds advanced field mappers
version=$version
name=mapper-extras
classname=org.opensearch.index.mapper.MapperExtrasPlugin
java.version=11
opensearch.version=$version
EOF
  if [ "$knn" = knn ]; then to_add_knn "$version" "$lib"; fi
  cat >"$to_home/config/opensearch.yml" <<EOF
cluster.name: sluice-bench
node.name: node-1
network.host: 127.0.0.1
http.port: $port
transport.port: $(tp_free_port $(( port + 100 )))
discovery.type: single-node
path.data: $to_home/data
path.logs: $to_home/logs
cluster.routing.allocation.disk.threshold_enabled: false
EOF
  if [ ${#tp_as_pg[@]} -gt 0 ]; then chown -R "${SLUICE_TEST_OS_USER:-postgres}" "$to_home"; fi
  to_port="$port"
  OPENSEARCH_JAVA_HOME="$(to_java_home)" \
    OPENSEARCH_JAVA_OPTS="-Xms$heap -Xmx$heap" OPENSEARCH_TMPDIR="$to_home/tmp" \
    "${tp_as_pg[@]}" "$to_home/bin/opensearch" -d -p "$to_home/opensearch.pid" >"$to_home/logs/console.log" 2>&1
  local _
  for _ in $(seq 1 240); do
    curl -sf "$(to_url)/_cluster/health?wait_for_status=yellow&timeout=1s" >/dev/null 2>&1 && return 0
    sleep 1
  done
  echo "OpenSearch did not start; see $to_home/logs" >&2
  exit 1
}

to_add_knn() {
  local version="$1" lib="$2" a module="$to_home/modules/lang-painless"
  mkdir -p "$module"
  for a in org.opensearch.plugin:lang-painless:"$version" org.opensearch.plugin:opensearch-scripting-painless-spi:"$version" \
    org.antlr:antlr4-runtime:4.13.1 org.ow2.asm:asm:9.7 org.ow2.asm:asm-util:9.7 org.ow2.asm:asm-tree:9.7 \
    org.ow2.asm:asm-commons:9.7 org.ow2.asm:asm-analysis:9.7; do
    (cd "$root" && ./mvnw -q -B -ntp dependency:copy -Dartifact="$a" -DoutputDirectory="$module")
  done
  printf '%s\n' "description=Painless scripting language" "version=$version" "name=lang-painless" \
    "classname=org.opensearch.painless.PainlessPlugin" "java.version=11" "opensearch.version=$version" \
    >"$module/plugin-descriptor.properties"
  # Painless compiles scripts into classes of its own loader.
  printf '%s\n' 'grant {' '  permission java.lang.RuntimePermission "createClassLoader";' \
    '  permission java.lang.RuntimePermission "getClassLoader";' '};' >"$module/plugin-security.policy"
  (cd "$root" && ./mvnw -q -B -ntp dependency:copy -Dartifact="org.opensearch.plugin:opensearch-knn:$version.0:zip" -DoutputDirectory="$lib")
  OPENSEARCH_JAVA_HOME="$(to_java_home)" "$to_home/bin/opensearch-plugin" install --batch "file://$lib/opensearch-knn-$version.0.zip" >/dev/null
}

to_java_home() { echo "${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}"; }

to_url() { echo "http://127.0.0.1:$to_port"; }

to_stop() {
  [ -n "${to_home:-}" ] && [ -f "$to_home/opensearch.pid" ] || return 0
  local pid
  pid="$(cat "$to_home/opensearch.pid")"
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || return 0; sleep 1; done
  kill -9 "$pid" 2>/dev/null || true
}
