// Package layout holds no code, only the test that enforces the import
// rules the package docs promise: which way hookd's imports run, and what
// the packages a receiver or a client imports may pull in.
package layout
