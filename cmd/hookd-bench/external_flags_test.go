package main

import (
	"io"
	"slices"
	"testing"
	"time"
)

func TestParseBenchFlagsExternal(t *testing.T) {
	o, err := parseBenchFlags([]string{"-external", "-hookd", "/tmp/hookd", "-workers", "2,1", "-n", "300", "-clients", "8", "-timeout", "2m"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	e := o.ext
	if !o.external || e.Hookd != "/tmp/hookd" || !slices.Equal(e.Workers, []int{2, 1}) || e.N != 300 || e.Clients != 8 || e.Timeout != 2*time.Minute {
		t.Errorf("external %v, config %+v", o.external, e)
	}

	o, err = parseBenchFlags([]string{"-external", "-serve", "-temporal-postgres", "-workers", "1"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !o.ext.Serve || !o.ext.TemporalPostgres || !slices.Equal(o.ext.Workers, []int{1}) {
		t.Errorf("serve: config %+v", o.ext)
	}

	o, err = parseBenchFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.external || o.ext.Serve || o.ext.TemporalPostgres || o.ext.Hookd != "bin/hookd" || !slices.Equal(o.ext.Workers, []int{1, 2}) {
		t.Errorf("defaults: external %v, config %+v", o.external, o.ext)
	}

	if _, err := parseBenchFlags([]string{"-workers", "0"}, io.Discard); err == nil {
		t.Error("accepted -workers 0")
	}
}
