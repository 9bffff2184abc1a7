package claim

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/timing"
)

// filled sets every exported field of the value v points to, recursively, to a value other
// than its zero: a converter that leaves one out then encodes differently from its source.
func filled(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		filled(v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				filled(v.Field(i))
			}
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		filled(v.Index(0))
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		filled(k)
		filled(e)
		v.SetMapIndex(k, e)
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(7)
	case reflect.Float64, reflect.Float32:
		v.SetFloat(0.5)
	}
}

// The records the claims store are their sources converted field by field: with every field of
// the source set, the stored record encodes as the source does, so a field added to both types
// (which the schema's field-set test keeps equal) but not copied is named here instead of being
// stored, and derived again, as zero.
func TestRecordsCopyEveryFieldOfTheirSource(t *testing.T) {
	var r join.Report
	filled(reflect.ValueOf(&r).Elem())
	var s timing.Summary
	filled(reflect.ValueOf(&s).Elem())
	for _, c := range []struct {
		name           string
		source, record any
	}{
		{"JoinRecord", r, JoinRecord(r)},
		{"TimingRecord", s, TimingRecord(s)},
	} {
		want, err := json.Marshal(c.source)
		if err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(c.record)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s leaves out a field:\n got %s\nwant %s", c.name, got, want)
		}
	}
}
