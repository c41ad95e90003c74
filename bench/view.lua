-- wrk script: anonymous product views over 1,000 products, 100,000 sessions.
-- Usage: wrk -t2 -c32 -d20s -s bench/view.lua http://127.0.0.1:8080 -- BRAND_ID
local brand
local counter = 0
function init(args) brand = args[1] or "br_demo" end
function request()
  counter = counter + 1
  local body = string.format(
    '{"brand_id":"%s","product":{"product_id":"p%d","title":"Product %d"},"context":{"session_id":"s%d","country":"DE","locale":"de-DE"}}',
    brand, math.random(1000), counter % 1000, math.random(100000))
  -- A browser's agent: anonymous events from unknown agents are bots and not counted.
  return wrk.format("POST", "/api/collect/product-view", {
    ["Content-Type"] = "application/json",
    ["User-Agent"] = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"}, body)
end
