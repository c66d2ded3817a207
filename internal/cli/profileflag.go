package cli

// profileFlag adds --pprof-addr, where a process serves its Go runtime
// profiles (app.ServeProfiles).
func profileFlag(fs envFlags, addr *string) {
	fs.str(addr, "pprof-addr", "HOOKD_PPROF_ADDR", "", "listen address serving this process's Go runtime profiles (CPU, heap, goroutines, execution trace) under /debug/pprof/, without credentials: keep it on loopback or a private network (empty disables it)")
}
