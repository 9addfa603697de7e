package simulate

// The simulated stack: regions, use cases and models. Times are in
// milliseconds unless named otherwise.

type regionSpec struct {
	name    string
	legMs   float64 // one-way base network delay
	clients int     // client hosts in the region
}

var regions = []regionSpec{
	{"us-east", 4, 2},
	{"eu-west", 38, 2},
	{"ap-south", 95, 2},
}

type useCaseSpec struct {
	name         string
	weight       float64
	route        string
	promptMedian float64
	promptSigma  float64
	outMedian    float64
	outSigma     float64
	maxOut       int
	streamShare  float64
}

var useCases = []useCaseSpec{
	{"chat", 0.4, "/v1/chat/completions", 350, 0.8, 120, 0.6, 1024, 0.9},
	{"summarize", 0.2, "/v1/completions", 2500, 0.5, 150, 0.4, 512, 0.3},
	{"code", 0.2, "/v1/chat/completions", 1200, 0.7, 200, 0.7, 1024, 0.8},
	{"rag", 0.2, "/v1/chat/completions", 3000, 0.4, 90, 0.5, 512, 0.6},
}

type modelSpec struct {
	name          string
	weight        float64
	prefillBaseMs float64
	prefillPerTok float64 // ms per prompt token
	tpotMs        float64 // decode ms per token with a batch of one
	batchSlope    float64 // tpot grows by this share per extra running request
}

var models = []modelSpec{
	{"llama-3.1-8b", 0.55, 12, 0.02, 5, 0.06},
	{"llama-3.1-70b", 0.45, 25, 0.08, 10, 0.06},
}

const gatewayHosts = 2
