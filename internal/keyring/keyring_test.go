package keyring

import (
	"bytes"
	"errors"
	"testing"
)

func key(b byte) []byte { return bytes.Repeat([]byte{b}, KeySize) }

func TestSealOpenRotation(t *testing.T) {
	r := New[string]()
	if err := r.Add("old", key(1)); err != nil {
		t.Fatal(err)
	}
	if err := r.SetCurrent("old"); err != nil {
		t.Fatal(err)
	}
	sealedOld, err := r.Seal([]byte("prefix"), []byte("secret"), []byte("row 1"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(sealedOld, []byte("prefix")) {
		t.Fatalf("Seal does not append to dst: %q", sealedOld)
	}
	sealedOld = sealedOld[len("prefix"):]
	if err := r.Add("new", key(2)); err != nil {
		t.Fatal(err)
	}
	if err := r.SetCurrent("new"); err != nil {
		t.Fatal(err)
	}
	sealedNew, err := r.Seal(nil, []byte("secret"), []byte("row 1"))
	if err != nil {
		t.Fatal(err)
	}
	for id, sealed := range map[string][]byte{"old": sealedOld, "new": sealedNew} {
		plain, err := r.Open(id, sealed, []byte("row 1"))
		if err != nil || string(plain) != "secret" {
			t.Errorf("Open(%s) = %q, %v", id, plain, err)
		}
	}
	if _, err := r.Open("new", sealedOld, []byte("row 1")); !errors.Is(err, ErrOpen) {
		t.Errorf("opening under the wrong key: %v, want ErrOpen", err)
	}
	if _, err := r.Open("new", sealedNew, []byte("row 2")); !errors.Is(err, ErrOpen) {
		t.Errorf("other additional data: %v, want ErrOpen", err)
	}
	if _, err := r.Open("gone", sealedNew, nil); !errors.Is(err, ErrUnknownKey) {
		t.Errorf("unknown id: %v, want ErrUnknownKey", err)
	}
	if _, err := r.Open("new", sealedNew[:5], []byte("row 1")); !errors.Is(err, ErrOpen) {
		t.Errorf("truncated: %v, want ErrOpen", err)
	}
	tampered := bytes.Clone(sealedNew)
	tampered[len(tampered)-1] ^= 1
	if _, err := r.Open("new", tampered, []byte("row 1")); !errors.Is(err, ErrOpen) {
		t.Errorf("tampered: %v, want ErrOpen", err)
	}
	if got := r.IDs(); len(got) != 2 || got[0] != "old" || got[1] != "new" {
		t.Errorf("IDs = %v", got)
	}
}

func TestRingRefusesBadKeys(t *testing.T) {
	r := New[byte]()
	if err := r.Add(1, []byte("short")); err == nil {
		t.Error("a short key was added")
	}
	if err := r.Add(1, key(1)); err != nil {
		t.Fatal(err)
	}
	if err := r.Add(1, key(2)); err == nil {
		t.Error("an ID was added twice")
	}
	if err := r.SetCurrent(9); err == nil {
		t.Error("a missing key became current")
	}
	if _, err := New[byte]().Seal(nil, []byte("x"), nil); err == nil {
		t.Error("sealed without a current key")
	}
}
