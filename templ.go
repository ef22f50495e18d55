// Package offsetlab is the root of Offset Lab, a dashboard that makes Kafka's
// delivery guarantees visible offset by offset. The go:generate line below
// regenerates the templ components under web/ with the templ version pinned
// by the tool line in go.mod.
package offsetlab

//go:generate go tool templ generate -path web
