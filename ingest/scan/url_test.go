package scan

import "testing"

func TestURLLabel(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"/v1/chat/completions":                            "/v1/chat/completions",
		"/v1/chat/completions?api_key=SECRET":             "/v1/chat/completions",
		"/v1/x#frag":                                      "/v1/x",
		"http://10.0.0.1:8000/?token=SECRET":              "http://10.0.0.1:8000/",
		"http://user:SECRET@10.0.0.1:8000/v1?x=1":         "http://10.0.0.1:8000/v1",
		"https://a:b@c@api.example.com":                   "https://api.example.com",
		"user:SECRET@10.0.0.1:8000":                       "10.0.0.1:8000",
		"10.0.0.1:8000":                                   "10.0.0.1:8000",
		"/v1/models/@latest":                              "/v1/models/@latest",
		"?SECRET":                                         "",
		"http://10.0.0.1:8000/v1/@x?token=SECRET@host":    "http://10.0.0.1:8000/v1/@x",
		"//user:SECRET@cdn.example/v1/chat?k=SECRET#frag": "//cdn.example/v1/chat",
	} {
		if got := string(URLLabel([]byte(in))); got != want {
			t.Errorf("URLLabel(%q) = %q, want %q", in, got, want)
		}
	}
}
