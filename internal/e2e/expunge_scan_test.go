package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/hookd/hookd/internal/codec"
	"github.com/hookd/hookd/internal/eventkey"
	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/internal/store/secretbox"
	"github.com/hookd/hookd/internal/store/sqlite"
)

// heldKeys are every key a stopped hookd dev still holds for its data
// dir: the store's master key, the payload codec's keys, and the data key
// of every event its store still has one for.
type heldKeys struct {
	master *secretbox.Box
	codec  *codec.Codec
	events map[string][]byte // event ID -> data key
}

// keysOf reads the keys a stopped hookd dev on dir holds. The store is
// read from a copy of dir, so the scan sees the files as hookd left them.
func keysOf(t *testing.T, dir string) heldKeys {
	t.Helper()
	masterKey, err := secretbox.LoadOrCreateKeyFile(filepath.Join(dir, "master.key"))
	require.NoError(t, err)
	box, err := secretbox.New(masterKey)
	require.NoError(t, err)
	payloadKeys, err := secretbox.ReadKeysFile(filepath.Join(dir, "payload-keys"))
	require.NoError(t, err)
	c, err := codec.New(payloadKeys, "default", true)
	require.NoError(t, err)

	cp := t.TempDir()
	for _, name := range []string{"hookd.db", "hookd.db-wal"} {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if os.IsNotExist(err) {
			continue
		}
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(cp, name), raw, 0o600))
	}
	st, err := sqlite.Open(context.Background(), filepath.Join(cp, "hookd.db"), masterKey)
	require.NoError(t, err)
	defer st.Close()
	k := heldKeys{master: box, codec: c, events: map[string][]byte{}}
	for p := (store.Page{Limit: store.MaxPageSize}); ; {
		evs, next, err := st.ListEvents(context.Background(), store.EventFilter{}, p)
		require.NoError(t, err)
		for _, ev := range evs {
			full, err := st.GetEvent(context.Background(), ev.ID)
			require.NoError(t, err)
			k.events[ev.ID] = full.DataKey // nil: none held
		}
		if next == "" {
			return k
		}
		p.Cursor = next
	}
}

// scanFor returns the files under dir from which marker is recoverable
// with the held keys: in their raw bytes; in an event payload the store
// sealed with its master key (also in free pages and write-ahead logs);
// in a payload Temporal holds under the codec's key (every Payload
// message found in the raw bytes, history, visibility and logs alike);
// and in a body sealed with an event's key inside one of those.
func (k heldKeys) scanFor(t *testing.T, dir, marker string) []string {
	t.Helper()
	var found []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, plain := range append([][]byte{raw}, k.open(raw)...) {
			if bytes.Contains(plain, []byte(marker)) {
				rel, _ := filepath.Rel(dir, path)
				found = append(found, rel)
				break
			}
		}
		return nil
	})
	require.NoError(t, err)
	return found
}

// open returns every plaintext the held keys open in raw.
func (k heldKeys) open(raw []byte) [][]byte {
	out := k.storePayloads(raw)
	for _, p := range k.codecPayloads(raw) {
		out = append(out, p)
		out = append(out, k.sealedBodies(p)...)
	}
	return out
}

// storePayloads opens each "hookd-sealed:1:" token (the store's sealed
// event payloads) under every event ID's binding.
func (k heldKeys) storePayloads(raw []byte) [][]byte {
	const prefix = "hookd-sealed:1:"
	var out [][]byte
	for rest := raw; ; {
		i := bytes.Index(rest, []byte(prefix))
		if i < 0 {
			return out
		}
		rest = rest[i+len(prefix):]
		n := 0
		for n < len(rest) && isBase64(rest[n]) {
			n++
		}
		sealed, err := base64.RawStdEncoding.DecodeString(string(rest[:n]))
		if err != nil {
			continue
		}
		for id := range k.events {
			if plain, err := k.master.Open(sealed, []byte("hookd event payload\x00"+id)); err == nil {
				out = append(out, plain)
			}
		}
	}
}

func isBase64(b byte) bool {
	return b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '+' || b == '/'
}

// codecPayloads decodes every Temporal Payload message in raw that the
// codec encrypted: around each "binary/encrypted" metadata value, the
// message is parsed from each candidate start (its metadata and data
// fields) and decoded with the codec's keys.
func (k heldKeys) codecPayloads(raw []byte) [][]byte {
	var out [][]byte
	seen := map[string]bool{}
	for off := 0; ; {
		i := bytes.Index(raw[off:], []byte(codec.EncodingEncrypted))
		if i < 0 {
			return out
		}
		i += off
		off = i + 1
		for j := max(0, i-96); j < i; j++ {
			n := payloadLen(raw[j:])
			if n == 0 {
				continue
			}
			var p commonpb.Payload
			if proto.Unmarshal(raw[j:j+n], &p) != nil || string(p.GetMetadata()["encoding"]) != codec.EncodingEncrypted {
				continue
			}
			dec, err := k.codec.Decode([]*commonpb.Payload{&p})
			if err != nil || seen[string(dec[0].GetData())] {
				continue
			}
			seen[string(dec[0].GetData())] = true
			out = append(out, dec[0].GetData())
		}
	}
}

// payloadLen is the length of the Payload message b starts with (fields
// 1, metadata, and 2, data, both length-delimited), 0 when none.
func payloadLen(b []byte) int {
	n, data := 0, false
	for n < len(b) {
		num, typ, tl := protowire.ConsumeTag(b[n:])
		if tl < 0 || typ != protowire.BytesType || (num != 1 && num != 2) {
			break
		}
		_, vl := protowire.ConsumeBytes(b[n+tl:])
		if vl < 0 {
			break
		}
		n += tl + vl
		data = data || num == 2
	}
	if !data {
		return 0
	}
	return n
}

// sealedBodies opens the bodies sealed with an event's key in a decoded
// payload (a delivery request, or one under "request") with every data
// key held.
func (k heldKeys) sealedBodies(payload []byte) [][]byte {
	var obj struct {
		EventID    string `json:"event_id"`
		SealedBody []byte `json:"sealed_body"`
		Request    *struct {
			EventID    string `json:"event_id"`
			SealedBody []byte `json:"sealed_body"`
		} `json:"request"`
	}
	if json.Unmarshal(payload, &obj) != nil {
		return nil
	}
	id, sealed := obj.EventID, obj.SealedBody
	if sealed == nil && obj.Request != nil {
		id, sealed = obj.Request.EventID, obj.Request.SealedBody
	}
	if sealed == nil {
		return nil
	}
	var out [][]byte
	for _, key := range k.events {
		if key == nil {
			continue
		}
		if body, err := eventkey.Open(key, id, sealed); err == nil {
			out = append(out, []byte(body))
		}
	}
	return out
}
