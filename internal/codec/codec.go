// Package codec encrypts the payloads hookd writes to Temporal (workflow
// and activity inputs and results, signals, query answers, heartbeat
// details, failure details, memo) so that customer data is never stored in
// Temporal's history or visibility in plaintext.
//
// A Codec is a converter.PayloadCodec: it compresses each payload (zstd,
// when that makes it smaller) and seals it with AES-256-GCM under a data
// key derived per namespace from a master key. The result carries Temporal's
// conventional metadata `encoding: binary/encrypted` and the ID of the
// master key, so several keys can be configured during a rotation: the
// newest encrypts, any of them decrypts. Payloads that were never encrypted
// (histories from before encryption was turned on) pass through unchanged.
//
// The same codec serves Temporal's codec-server protocol (NewHandler) so
// the Web UI and the temporal CLI can show decoded payloads to operators.
package codec

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/klauspost/compress/zstd"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/proto"

	"github.com/hookd/hookd/internal/keyring"
)

// Metadata of an encrypted payload.
const (
	// EncodingEncrypted is the `encoding` of an encrypted payload
	// (Temporal's convention for encryption codecs).
	EncodingEncrypted = "binary/encrypted"
	// MetadataKeyID names the master key a payload was encrypted under.
	MetadataKeyID = "encryption-key-id"
)

// Inside the ciphertext, one byte says how the payload was stored.
const (
	formatRaw  byte = 1 // proto-marshalled payload
	formatZstd byte = 2 // zstd of the proto-marshalled payload
)

// minCompress is the smallest payload worth trying to compress.
const minCompress = 128

// maxDecoded bounds a decompressed payload (Temporal refuses payloads far
// smaller), so a forged payload cannot exhaust memory.
const maxDecoded = 64 << 20

// The zstd coders keep no state between EncodeAll/DecodeAll calls and are
// safe for concurrent use; their constructors fail only on invalid options.
var (
	zenc, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest))
	zdec, _ = zstd.NewReader(nil, zstd.WithDecoderMaxMemory(maxDecoded))
)

// ErrUnknownKey is returned for a payload encrypted under a master key that
// is not configured.
var ErrUnknownKey = errors.New("payload encrypted under a key that is not configured")

// Codec encrypts and decrypts the payloads of one namespace. It is safe for
// concurrent use.
type Codec struct {
	namespace string
	encrypt   bool // false: Encode passes payloads through
	keys      *keyring.Ring[string]
}

// New returns the codec of namespace ns. keys are master keys, oldest
// first; the last one encrypts, any decrypts. With encrypt false, Encode
// leaves payloads in plaintext while Decode still opens payloads under
// keys (turning encryption off keeps old histories readable). Encryption
// without a key is an error.
func New(keys [][]byte, ns string, encrypt bool) (*Codec, error) {
	if encrypt && len(keys) == 0 {
		return nil, errors.New("payload encryption needs at least one key")
	}
	c := &Codec{namespace: ns, encrypt: encrypt, keys: keyring.New[string]()}
	for i, master := range keys {
		k, err := deriveDataKey(master, ns)
		if err != nil {
			return nil, fmt.Errorf("payload key %d: %w", i+1, err)
		}
		id := KeyID(master)
		if slices.Contains(c.keys.IDs(), id) {
			return nil, fmt.Errorf("payload key %d: the same key is configured twice (id %s)", i+1, id)
		}
		if err := c.keys.Add(id, k); err != nil {
			return nil, fmt.Errorf("payload key %d: %w", i+1, err)
		}
		if err := c.keys.SetCurrent(id); err != nil {
			return nil, fmt.Errorf("payload key %d: %w", i+1, err)
		}
	}
	return c, nil
}

// Encrypting reports whether Encode encrypts.
func (c *Codec) Encrypting() bool { return c.encrypt }

// KeyIDs returns the IDs of the configured keys, oldest first.
func (c *Codec) KeyIDs() []string { return c.keys.IDs() }

// EncryptingKeyID returns the ID of the key Encode uses ("" when off).
func (c *Codec) EncryptingKeyID() string {
	if !c.encrypt {
		return ""
	}
	id, _ := c.keys.Current()
	return id
}

// Encode implements converter.PayloadCodec.
func (c *Codec) Encode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	if !c.encrypt {
		return payloads, nil
	}
	out := make([]*commonpb.Payload, len(payloads))
	for i, p := range payloads {
		sealed, err := c.seal(p)
		if err != nil {
			return payloads, err
		}
		out[i] = sealed
	}
	return out, nil
}

// Decode implements converter.PayloadCodec. A payload that is not
// encrypted is returned as it is.
func (c *Codec) Decode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(payloads))
	for i, p := range payloads {
		if string(p.GetMetadata()[converter.MetadataEncoding]) != EncodingEncrypted {
			out[i] = p
			continue
		}
		opened, err := c.open(p)
		if err != nil {
			return payloads, err
		}
		out[i] = opened
	}
	return out, nil
}

func (c *Codec) seal(p *commonpb.Payload) (*commonpb.Payload, error) {
	raw, err := proto.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode payload: %w", err)
	}
	id, _ := c.keys.Current()
	plain := append([]byte{formatRaw}, raw...)
	if len(raw) >= minCompress {
		if z := zenc.EncodeAll(raw, []byte{formatZstd}); len(z) < len(plain) {
			plain = z
		}
	}
	data, err := c.keys.Seal(nil, plain, additionalData(id))
	if err != nil {
		return nil, fmt.Errorf("encode payload: %w", err)
	}
	return &commonpb.Payload{
		Metadata: map[string][]byte{
			converter.MetadataEncoding: []byte(EncodingEncrypted),
			MetadataKeyID:              []byte(id),
		},
		Data: data,
	}, nil
}

func (c *Codec) open(p *commonpb.Payload) (*commonpb.Payload, error) {
	id := string(p.GetMetadata()[MetadataKeyID])
	plain, err := c.keys.Open(id, p.GetData(), additionalData(id))
	switch {
	case errors.Is(err, keyring.ErrUnknownKey):
		return nil, fmt.Errorf("decode payload: %w: key id %q is not among the configured payload keys [%s]",
			ErrUnknownKey, id, strings.Join(c.keys.IDs(), " "))
	case err != nil:
		return nil, fmt.Errorf("decode payload under key %s in namespace %q: %w", id, c.namespace, err)
	}
	if len(plain) == 0 {
		return nil, fmt.Errorf("decode payload under key %s: empty", id)
	}
	raw := plain[1:]
	switch plain[0] {
	case formatRaw:
	case formatZstd:
		if raw, err = zdec.DecodeAll(raw, nil); err != nil {
			return nil, fmt.Errorf("decode payload under key %s: decompress: %w", id, err)
		}
	default:
		return nil, fmt.Errorf("decode payload under key %s: unknown format %d", id, plain[0])
	}
	var out commonpb.Payload
	if err := proto.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("decode payload under key %s: %w", id, err)
	}
	return &out, nil
}

// additionalData binds a ciphertext to its format version and key ID.
func additionalData(id string) []byte { return []byte("hookd payload v1 " + id) }
