package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

// versionCmd prints the module's version, the commit it was built from
// and the Go toolchain.
func versionCmd(args []string, w io.Writer) error {
	if len(args) > 0 {
		return usageErr("version takes no arguments")
	}
	info, ok := debug.ReadBuildInfo()
	fmt.Fprint(w, versionText(info, ok))
	return nil
}

// versionText describes a build. The commit comes from the vcs settings
// that `go build` stamps in a checkout; `go run`, -buildvcs=false (also
// through GOFLAGS) and builds outside a repository have none, and it says so.
func versionText(info *debug.BuildInfo, ok bool) string {
	if !ok || info == nil {
		return fmt.Sprintf("lab (no build information)\n%s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	version := info.Main.Version
	if version == "" {
		version = "(devel)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "lab %s (%s)\n", version, info.Main.Path)
	if rev := settings["vcs.revision"]; rev != "" {
		fmt.Fprintf(&b, "commit %s", rev)
		var notes []string
		if t := settings["vcs.time"]; t != "" {
			notes = append(notes, t)
		}
		if settings["vcs.modified"] == "true" {
			notes = append(notes, "with uncommitted changes")
		}
		if len(notes) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(notes, ", "))
		}
		b.WriteByte('\n')
	} else {
		b.WriteString("commit unknown: built without version control information (go run, -buildvcs=false, or outside a checkout)\n")
	}
	goVersion := info.GoVersion
	if goVersion == "" {
		goVersion = runtime.Version()
	}
	fmt.Fprintf(&b, "%s %s/%s\n", goVersion, runtime.GOOS, runtime.GOARCH)
	return b.String()
}
