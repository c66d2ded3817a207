package codec_test

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	mrand "math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/proto"

	"github.com/hookd/hookd/internal/codec"
	"github.com/hookd/hookd/internal/delivery"
)

func newKey(t testing.TB) []byte {
	k := make([]byte, codec.KeySize)
	_, err := rand.Read(k)
	require.NoError(t, err)
	return k
}

func newCodec(t testing.TB, ns string, encrypt bool, keys ...[]byte) *codec.Codec {
	t.Helper()
	c, err := codec.New(keys, ns, encrypt)
	require.NoError(t, err)
	return c
}

// orderRequest is a delivery input carrying a marker in its body.
func orderRequest(marker string) delivery.Request {
	return delivery.Request{
		DeliveryID: "dlv_s8kx3chhp3k0xhcvwh1n8mey08", EventID: "evt_1001",
		EventType: "order.created", EndpointID: "ep_yyyhmmzxgtdp9apqes109f2b5g",
		Body:     `{"order_id":"ord_42","total":4200,"customer":{"email":"` + marker + `@example.com","name":"Ada Lovelace"}}`,
		Schedule: []time.Duration{30 * time.Second, 2 * time.Minute, 10 * time.Minute, time.Hour, 4 * time.Hour, 12 * time.Hour, 24 * time.Hour},
		Timeout:  15 * time.Second,
	}
}

func TestRoundTripHidesThePayload(t *testing.T) {
	c := newCodec(t, "default", true, newKey(t))
	dc := c.DataConverter()
	p, err := dc.ToPayload(orderRequest("marker-7f3a"))
	require.NoError(t, err)

	require.Equal(t, codec.EncodingEncrypted, string(p.Metadata[converter.MetadataEncoding]))
	require.Equal(t, c.EncryptingKeyID(), string(p.Metadata[codec.MetadataKeyID]))
	wire, err := proto.Marshal(p)
	require.NoError(t, err)
	for _, plain := range []string{"marker-7f3a", "ord_42", "order.created", "json/plain"} {
		require.False(t, bytes.Contains(wire, []byte(plain)), "%q visible in the encoded payload", plain)
	}

	var got delivery.Request
	require.NoError(t, dc.FromPayload(p, &got))
	require.Equal(t, orderRequest("marker-7f3a"), got)
}

func TestEncryptionIsRandomised(t *testing.T) {
	dc := newCodec(t, "default", true, newKey(t)).DataConverter()
	a, err := dc.ToPayload("same value")
	require.NoError(t, err)
	b, err := dc.ToPayload("same value")
	require.NoError(t, err)
	require.NotEqual(t, a.Data, b.Data, "equal plaintexts must not give equal ciphertexts")
}

func TestPlaintextPayloadsStillDecode(t *testing.T) {
	plain, err := converter.GetDefaultDataConverter().ToPayload(orderRequest("old"))
	require.NoError(t, err)
	var got delivery.Request
	require.NoError(t, newCodec(t, "default", true, newKey(t)).DataConverter().FromPayload(plain, &got))
	require.Equal(t, orderRequest("old"), got)
}

func TestRotation(t *testing.T) {
	k1, k2 := newKey(t), newKey(t)
	before := newCodec(t, "default", true, k1)
	old, err := before.DataConverter().ToPayload("written under key 1")
	require.NoError(t, err)

	after := newCodec(t, "default", true, k1, k2)
	require.Equal(t, codec.KeyID(k2), after.EncryptingKeyID(), "the newest key encrypts")
	require.Equal(t, []string{codec.KeyID(k1), codec.KeyID(k2)}, after.KeyIDs())
	var s string
	require.NoError(t, after.DataConverter().FromPayload(old, &s))
	require.Equal(t, "written under key 1", s)

	fresh, err := after.DataConverter().ToPayload("written under key 2")
	require.NoError(t, err)
	require.Equal(t, codec.KeyID(k2), string(fresh.Metadata[codec.MetadataKeyID]))
}

func TestUnknownKeyIsAClearError(t *testing.T) {
	k1, k2 := newKey(t), newKey(t)
	p, err := newCodec(t, "default", true, k1).DataConverter().ToPayload("secret")
	require.NoError(t, err)

	var s string
	err = newCodec(t, "default", true, k2).DataConverter().FromPayload(p, &s)
	require.ErrorIs(t, err, codec.ErrUnknownKey)
	require.ErrorContains(t, err, codec.KeyID(k1), "the error names the missing key's id")
	require.ErrorContains(t, err, codec.KeyID(k2), "and the configured ones")
}

func TestDataKeysArePerNamespace(t *testing.T) {
	k := newKey(t)
	p, err := newCodec(t, "tenant-a", true, k).DataConverter().ToPayload("secret")
	require.NoError(t, err)
	var s string
	err = newCodec(t, "tenant-b", true, k).DataConverter().FromPayload(p, &s)
	require.ErrorContains(t, err, `namespace "tenant-b"`)
	require.ErrorContains(t, err, "authentication failed")
}

func TestTamperedPayloadIsRefused(t *testing.T) {
	c := newCodec(t, "default", true, newKey(t))
	p, err := c.DataConverter().ToPayload("secret")
	require.NoError(t, err)
	p.Data[len(p.Data)-1] ^= 1
	_, err = c.Decode([]*commonpb.Payload{p})
	require.ErrorContains(t, err, "authentication failed")
}

func TestEncryptionOff(t *testing.T) {
	k := newKey(t)
	sealed, err := newCodec(t, "default", true, k).DataConverter().ToPayload("from before")
	require.NoError(t, err)

	off := newCodec(t, "default", false, k)
	require.False(t, off.Encrypting())
	p, err := off.DataConverter().ToPayload("new value")
	require.NoError(t, err)
	require.Equal(t, "json/plain", string(p.Metadata[converter.MetadataEncoding]), "off writes plaintext")
	var s string
	require.NoError(t, off.DataConverter().FromPayload(sealed, &s), "off still reads what its keys encrypted")
	require.Equal(t, "from before", s)

	_, err = codec.New(nil, "default", false)
	require.NoError(t, err, "off needs no key")
}

func TestBadKeys(t *testing.T) {
	_, err := codec.New(nil, "default", true)
	require.ErrorContains(t, err, "at least one key")
	_, err = codec.New([][]byte{make([]byte, 16)}, "default", true)
	require.ErrorContains(t, err, "16 bytes, want 32")
	k := newKey(t)
	_, err = codec.New([][]byte{k, k}, "default", true)
	require.ErrorContains(t, err, "configured twice")
}

// orderEvent is a JSON event of at least size bytes: an order whose line
// items carry random IDs (high-entropy fields compress worst), so the
// compression figure is not flattered by repetition.
func orderEvent(size int) string {
	type item struct {
		ID       string `json:"id"`
		SKU      string `json:"sku"`
		Name     string `json:"name"`
		Quantity int    `json:"quantity"`
		Price    int    `json:"unit_price_cents"`
	}
	rnd := mrand.New(mrand.NewPCG(1, 2))
	id := func(prefix string, n int) string {
		const alphabet = "0123456789abcdefghjkmnpqrstvwxyz"
		b := []byte(prefix)
		for range n {
			b = append(b, alphabet[rnd.IntN(len(alphabet))])
		}
		return string(b)
	}
	names := []string{"Espresso beans 1kg", "Pour-over kettle", "Ceramic dripper", "Paper filters (100)", "Burr grinder", "Milk jug 600ml", "Tamper 58mm", "Scale with timer"}
	var items []item
	for {
		items = append(items, item{ID: id("li_", 26), SKU: id("", 10), Name: names[rnd.IntN(len(names))], Quantity: 1 + rnd.IntN(5), Price: 199 + rnd.IntN(20000)})
		raw, _ := json.Marshal(map[string]any{
			"order_id": id("ord_", 26), "currency": "EUR", "created_at": "2026-11-30T04:56:40Z",
			"customer": map[string]string{"id": id("cus_", 26), "email": "ada@example.com", "name": "Ada Lovelace"},
			"items":    items,
		})
		if len(raw) >= size {
			return string(raw)
		}
	}
}

func TestCompressionOnA10KiBEvent(t *testing.T) {
	req := orderRequest("")
	req.Body = orderEvent(10 << 10)
	plain, err := converter.GetDefaultDataConverter().ToPayload(req)
	require.NoError(t, err)
	sealed, err := newCodec(t, "default", true, newKey(t)).DataConverter().ToPayload(req)
	require.NoError(t, err)
	before, after := proto.Size(plain), proto.Size(sealed)
	t.Logf("10 KiB event: payload %d bytes in plaintext, %d bytes compressed and encrypted (%.0f%%)",
		before, after, 100*float64(after)/float64(before))
	require.Less(t, after, before/2, "compression should more than halve a JSON event")

	tiny, err := newCodec(t, "default", true, newKey(t)).DataConverter().ToPayload("x")
	require.NoError(t, err)
	require.Less(t, len(tiny.Data), 80, "a small payload costs only nonce, tag and framing")
	require.False(t, strings.Contains(string(tiny.Data), "x\""))
}

// BenchmarkEncodeDecode measures the codec on a typical delivery input
// (a 1 KiB order event): what each payload write and read costs.
func BenchmarkEncodeDecode(b *testing.B) {
	dc := newCodec(b, "default", true, newKey(b)).DataConverter()
	req := orderRequest("bench")
	req.Body = orderEvent(1 << 10)
	b.ReportAllocs()
	for b.Loop() {
		p, err := dc.ToPayload(req)
		if err != nil {
			b.Fatal(err)
		}
		var got delivery.Request
		if err := dc.FromPayload(p, &got); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlaintext is the same without the codec, for comparison.
func BenchmarkPlaintext(b *testing.B) {
	dc := converter.GetDefaultDataConverter()
	req := orderRequest("bench")
	req.Body = orderEvent(1 << 10)
	b.ReportAllocs()
	for b.Loop() {
		p, err := dc.ToPayload(req)
		if err != nil {
			b.Fatal(err)
		}
		var got delivery.Request
		if err := dc.FromPayload(p, &got); err != nil {
			b.Fatal(err)
		}
	}
}
