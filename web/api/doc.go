// Package api is Offset Lab's JSON API (docs/api.md): one file per
// resource — topics, partitions (log, records, history, map, jumps,
// search, offset for a time), producers, transactions, groups, produce,
// processor runs, lessons, brokers, the cluster and the classroom. Each
// handler decodes the request, calls one use case of internal/lab (or the
// lesson runner) and encodes its answer; errors become statuses in one
// place, httpx.WriteError. The routes are registered by the web package's
// router, so every route stays visible in one function.
package api
