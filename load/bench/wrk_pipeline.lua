-- wrk script of frontends_bench.py: each round trip sends WRK_PIPELINE pipelined
-- POST /v1/transcode requests with the body of the file WRK_BODY (JSON -> CBOR); wrk counts
-- every response. WRK_PIPELINE=1 is plain keep-alive, one request in flight per connection.
local depth = tonumber(os.getenv("WRK_PIPELINE") or "1")
local file = assert(io.open(assert(os.getenv("WRK_BODY"), "WRK_BODY is not set"), "rb"))
local body = file:read("*a")
file:close()
local batch

init = function(args)
  local one = wrk.format("POST", "/v1/transcode",
                         {["Content-Type"] = "application/json", ["Accept"] = "application/cbor"},
                         body)
  batch = string.rep(one, depth)
end

request = function()
  return batch
end
