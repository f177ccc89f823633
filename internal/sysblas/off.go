//go:build !(cblas && cgo)

package sysblas

const enabled = false
