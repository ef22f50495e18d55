// Package web is Offset Lab's HTTP face: the JSON API of docs/api.md, the
// pages rendered from templ components, and (later) the websocket stream.
// It knows HTTP and nothing of Kafka's wire protocol: it declares the
// interfaces it needs from the cluster, inspector, producer and processor
// and maps their domain errors to statuses in one place (errors.go).
package web
