package kafkaconfig

import (
	"slices"
	"testing"
)

func TestParseProperties(t *testing.T) {
	t.Parallel()
	type kv struct{ key, value string }
	tests := []struct {
		name string
		text string
		want []kv
	}{
		{"equals", "a=b", []kv{{"a", "b"}}},
		{"colon and spaces", "a : b c ", []kv{{"a", "b c "}}},
		{"whitespace separator", "a   b", []kv{{"a", "b"}}},
		{"whitespace then equals", "a \t= b", []kv{{"a", "b"}}},
		{"comments and blanks", "# c=1\n! d=2\n\n   \n  e=3", []kv{{"e", "3"}}},
		{"CRLF and CR", "a=1\r\nb=2\rc=3", []kv{{"a", "1"}, {"b", "2"}, {"c", "3"}}},
		{"continuation drops leading blanks", "a=one \\\n    two\\\n three", []kv{{"a", "one twothree"}}},
		{"escaped backslash is no continuation", "a=x\\\\\nb=y", []kv{{"a", `x\`}, {"b", "y"}}},
		{"escapes", `a=t\tn\nu\u0041\:\=\#`, []kv{{"a", "t\tn\nuA:=#"}}},
		{"escaped separator in value", `a=b\=c`, []kv{{"a", "b=c"}}},
		{"empty value", "a=\nb", []kv{{"a", ""}, {"b", ""}}},
		{"comment line is not continued", "# x \\\na=1", []kv{{"a", "1"}}},
		{"value keeps = and :", `sasl.jaas.config=M required username="u" password="a=b:c";`, []kv{{"sasl.jaas.config", `M required username="u" password="a=b:c";`}}},
		{"backslash at end of file", "a=b\\", []kv{{"a", "b"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			props, err := parseProperties(tt.text)
			if err != nil {
				t.Fatal(err)
			}
			var got []kv
			for _, p := range props {
				got = append(got, kv{p.key, p.value})
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParsePropertiesRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		text   string
		line   int
		msgKey string
	}{
		{"bad unicode escape", "a=1\nb=\\u12G4", 2, keyBadEscape},
		{"short unicode escape", "a=\\u12", 1, keyBadEscape},
		{"value without key", "\n=value", 2, keyValueWithoutKey},
		{"json", `{"bootstrap.servers": "x"}`, 1, keyMalformedLine},
		{"yaml list", "- a: b", 1, keyMalformedLine},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := parseProperties(tt.text)
			se, ok := err.(*syntaxError)
			if !ok {
				t.Fatalf("got %v, want a syntax error", err)
			}
			if se.line != tt.line || se.msgKey != tt.msgKey {
				t.Errorf("line %d %s, want line %d %s", se.line, se.msgKey, tt.line, tt.msgKey)
			}
		})
	}
}

func TestParseJAAS(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		module     string
		options    map[string]string
		err        string
	}{
		{name: "scram", text: `org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="a b;c";`,
			module: scramLoginModule, options: map[string]string{"username": "alice", "password": "a b;c"}},
		{name: "plain bare values", text: `org.apache.kafka.common.security.plain.PlainLoginModule Required username=bob password=x1 ;`,
			module: plainLoginModule, options: map[string]string{"username": "bob", "password": "x1"}},
		{name: "single quotes and escapes", text: "M optional username='u' password=\"q\\\"x\\\\\";\n",
			module: "M", options: map[string]string{"username": "u", "password": `q"x\`}},
		{name: "no semicolon", text: `M required username="u"`, err: "it must end with ';'"},
		{name: "bad flag", text: `M mandatory username="u";`, err: "the login module must be followed by required, requisite, sufficient or optional"},
		{name: "two modules", text: `M required; N required;`, err: "it holds more than one login module; Kafka takes exactly one"},
		{name: "option without value", text: `M required username;`, err: "option username has no =value"},
		{name: "open quote", text: `M required password="abc;`, err: "a quoted value is not closed"},
		{name: "empty", text: "  ", err: "it is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e, err := parseJAAS(tt.text)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if e.module != tt.module {
				t.Errorf("module %q, want %q", e.module, tt.module)
			}
			for k, v := range tt.options {
				if e.options[k] != v {
					t.Errorf("option %s = %q, want %q", k, e.options[k], v)
				}
			}
		})
	}
}
