# Kafka for the benchmarks: one KRaft node (broker and controller) and one Connect worker, all from
# Maven Central (bench/debezium/*.xml), with Debezium's PostgreSQL and JDBC sink connectors and
# Sluice's plugin archive installed. Source it after scripts/lib/throwaway-postgres.sh (tp_init
# done); processes started are added to the caller's "pids" array, for its cleanup to stop.
#
#   kafka_fetch ROOT                       Kafka and Debezium into $tp_work/libs, plugins into $tp_work/plugins
#   kafka_start PARTITIONS                 the node (topics it creates get PARTITIONS); sets kafka_port, kafka_pid
#   connect_start standalone|distributed   a worker on the node; sets rest (its REST address), connect_port, connect_pid;
#                                          WORKER_JAVA_OPTS adds JVM options to the worker's (a profiler, say:
#                                          WORKER_JAVA_OPTS="-XX:StartFlightRecording=filename=/tmp/w.jfr,settings=profile")
#   heap_watch_start / heap_watch_stop     samples the worker's heap every second (jstat) between the two; the stop
#                                          sets heap_peaks to "used/old" peaks in MB (all generations / old generation)
#   connector NAME JSON                    creates or updates a connector
#   connect_failed                         true when a connector or task is FAILED (and prints the status)
#   $tuned_producer                        a source connector's producer keys as docs/connect.md sets them (JSON members);
#                                          the benchmarks give Debezium's source the same

tuned_producer='"producer.override.linger.ms": "5", "producer.override.batch.size": "1048576", "producer.override.compression.type": "lz4"'

kafka_fetch() {
  local root="$1" part
  kafka_libs="$tp_work/libs"
  for part in kafka connector-postgres connector-jdbc; do
    (cd "$root" && ./mvnw -q -B -ntp -f "bench/debezium/$part.xml" dependency:copy-dependencies -DoutputDirectory="$kafka_libs/$part")
  done
  mkdir -p "$tp_work/plugins"
  ln -s "$kafka_libs/connector-postgres" "$tp_work/plugins/debezium-postgres"
  ln -s "$kafka_libs/connector-jdbc" "$tp_work/plugins/debezium-jdbc"
  unzip -q "$root"/connect-plugin/target/sluice-kafka-connect-sluice-*.zip -d "$tp_work/plugins"
  java_kafka=(java -Xms1g -Xmx1g -Dlog4j2.configurationFile="$tp_work/log4j2.properties" -cp "$kafka_libs/kafka/*")
  cat >"$tp_work/log4j2.properties" <<EOF
rootLogger.level = WARN
rootLogger.appenderRef.file.ref = file
appender.file.type = File
appender.file.name = file
appender.file.fileName = \${sys:log.file:-$tp_work/kafka-misc.log}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = %d %p %c - %m%n
# Sluice's own steps (snapshot progress, batch tuning, barriers) at INFO, as in its runtime's log.
logger.sluice.name = io.sluice
logger.sluice.level = INFO
EOF
}

kafka_start() {
  local partitions="$1" controller_port cluster
  kafka_port="$(tp_free_port 59092)"
  controller_port="$(tp_free_port $(( kafka_port + 1 )))"
  cat >"$tp_work/server.properties" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.bootstrap.servers=127.0.0.1:$controller_port
listeners=PLAINTEXT://127.0.0.1:$kafka_port,CONTROLLER://127.0.0.1:$controller_port
advertised.listeners=PLAINTEXT://127.0.0.1:$kafka_port
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$tp_work/kafka-data
num.partitions=$partitions
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
EOF
  cluster="$("${java_kafka[@]}" kafka.tools.StorageTool random-uuid)"
  "${java_kafka[@]}" kafka.tools.StorageTool format -t "$cluster" -c "$tp_work/server.properties" --standalone >/dev/null
  "${java_kafka[@]}" -Dlog.file="$tp_work/kafka.log" kafka.Kafka "$tp_work/server.properties" >"$tp_work/kafka.out" 2>&1 &
  kafka_pid=$!
  pids+=("$kafka_pid")
}

connect_start() {
  local mode="$1" main plugin
  connect_port="$(tp_free_port 58083)"
  cat >"$tp_work/worker.properties" <<EOF
bootstrap.servers=127.0.0.1:$kafka_port
key.converter=org.apache.kafka.connect.json.JsonConverter
value.converter=org.apache.kafka.connect.json.JsonConverter
key.converter.schemas.enable=true
value.converter.schemas.enable=true
plugin.path=$tp_work/plugins
listeners=http://127.0.0.1:$connect_port
connector.client.config.override.policy=All
EOF
  if [ "$mode" = distributed ]; then
    # docs/connect.md's trial worker: one broker, so Connect's own topics have one replica.
    cat >>"$tp_work/worker.properties" <<EOF
group.id=bench-connect
config.storage.topic=connect-configs
offset.storage.topic=connect-offsets
status.storage.topic=connect-status
config.storage.replication.factor=1
offset.storage.replication.factor=1
status.storage.replication.factor=1
plugin.discovery=service_load
exactly.once.source.support=enabled
EOF
    main=org.apache.kafka.connect.cli.ConnectDistributed
  else
    echo "offset.storage.file.filename=$tp_work/connect.offsets" >>"$tp_work/worker.properties"
    main=org.apache.kafka.connect.cli.ConnectStandalone
  fi
  # shellcheck disable=SC2086 # WORKER_JAVA_OPTS is a list of options
  "${java_kafka[0]}" ${WORKER_JAVA_OPTS:-} "${java_kafka[@]:1}" -Dlog.file="$tp_work/connect.log" "$main" "$tp_work/worker.properties" >"$tp_work/connect.out" 2>&1 &
  connect_pid=$!
  pids+=("$connect_pid")
  rest="http://127.0.0.1:$connect_port"
  for _ in $(seq 1 180); do curl -sf "$rest/connector-plugins" >/dev/null 2>&1 && break; sleep 1; done
  for plugin in JdbcSinkConnector PostgresConnector io.sluice.sink.postgres.PostgresSinkConnector; do
    curl -sf "$rest/connector-plugins" | grep -q "$plugin" || { echo "Connect did not start with $plugin; see $tp_work/connect.log" >&2; exit 1; }
  done
}

connector() {
  curl -sf -X PUT -H 'Content-Type: application/json' "$rest/connectors/$1/config" -d "$2" >/dev/null \
    || { echo "Connect refused connector $1:" >&2; curl -s -X PUT -H 'Content-Type: application/json' "$rest/connectors/$1/config" -d "$2" >&2; exit 1; }
}

connect_failed() {
  local status
  status="$(curl -sf "$rest/connectors?expand=status" || true)"
  if grep -q '"state":"FAILED"' <<<"$status"; then
    echo "A connector failed:" >&2
    echo "$status" >&2
    return 0
  fi
  return 1
}

heap_watch_start() {
  jstat -gc "$connect_pid" 1000 >"$tp_work/jstat-watch.txt" 2>/dev/null &
  heap_watch_pid=$!
}

heap_watch_stop() {
  kill "$heap_watch_pid" 2>/dev/null || true
  wait "$heap_watch_pid" 2>/dev/null || true
  # With -Xms1g young garbage fills the heap's used part between collections: the old generation
  # is what the pipelines keep.
  heap_peaks="$(awk 'NR > 1 && $1 ~ /^[0-9.]+$/ {used = $3 + $4 + $6 + $8; if (used > max) max = used; if ($8 > old) old = $8}
    END {printf "%.0f/%.0f", max / 1024, old / 1024}' "$tp_work/jstat-watch.txt")"
}

# CPU seconds of a JVM's JIT compiler threads (HotSpot names them "C1 CompilerThread<n>" and
# "C2 CompilerThread<n>"): how much of a run the JVM spent compiling rather than running the code.
jit_seconds() {
  local task total=0
  for task in /proc/"$1"/task/*; do
    case "$(cat "$task/comm" 2>/dev/null)" in
      C1\ CompilerThre* | C2\ CompilerThre*)
        total=$(( total + $(awk '{sub(/.*\) /, ""); print $12 + $13}' "$task/stat" 2>/dev/null || echo 0) )) ;;
    esac
  done
  awk -v t="$total" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.1f", t / hz}'
}
