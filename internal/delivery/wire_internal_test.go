package delivery

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
)

// Each type with its own JSON encoding carries every field it has through
// Temporal: a field added to the type and lost by its wire form fails here
// (every field, nested ones too, is set to a value of its own).
func TestWireFormsCarryEveryField(t *testing.T) {
	dc := converter.GetDefaultDataConverter()
	for _, v := range []any{&Request{}, &Attempt{}, &DeadLetterParams{}, &RetryInput{}, &DeadLetter{}, &Result{}} {
		t.Run(fmt.Sprintf("%T", v), func(t *testing.T) {
			var f filler
			f.fill(t, reflect.ValueOf(v).Elem())
			bodies := []string{"not JSON"}
			if r, ok := v.(*Request); ok {
				bodies = append(bodies, `{"order_id":"ord_42"}`) // also as an embedded payload
				r.Body = bodies[0]
			}
			for _, body := range bodies {
				if r, ok := v.(*Request); ok {
					r.Body = body
				}
				p, err := dc.ToPayload(v)
				require.NoError(t, err)
				back := reflect.New(reflect.TypeOf(v).Elem())
				require.NoError(t, dc.FromPayload(p, back.Interface()))
				assert.Equal(t, v, back.Interface(), "through %s", p.GetData())
			}
		})
	}
}

// filler sets every field of a value to a distinct non-zero value.
type filler struct{ n int }

func (f *filler) fill(t *testing.T, v reflect.Value) {
	t.Helper()
	f.n++
	switch {
	case v.Type() == reflect.TypeFor[time.Time]():
		v.Set(reflect.ValueOf(time.Date(2026, 12, 1, 10, f.n, 0, 1000+f.n, time.UTC)))
		return
	case v.Type() == reflect.TypeFor[time.Duration]():
		v.SetInt(int64(time.Duration(f.n) * 1500 * time.Microsecond))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("value-%d", f.n))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(f.n))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(f.n))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(f.n) + 0.5)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		f.fill(t, v.Elem())
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		f.fill(t, v.Index(0))
		f.fill(t, v.Index(1))
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		key, val := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		f.fill(t, key)
		f.fill(t, val)
		v.SetMapIndex(key, val)
	case reflect.Struct:
		for i := range v.NumField() {
			if !v.Type().Field(i).IsExported() {
				t.Fatalf("%s.%s: unexported fields are not filled", v.Type(), v.Type().Field(i).Name)
			}
			f.fill(t, v.Field(i))
		}
	default:
		t.Fatalf("no value for a %s field", v.Type())
	}
}
