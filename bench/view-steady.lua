-- wrk script: as view.lua, but each product keeps its title, as on a real shop,
-- where view.lua's titles change with nearly every view and so rewrite the product.
-- Usage: wrk -t2 -c32 -d20s -s bench/view-steady.lua http://127.0.0.1:8080 -- BRAND_ID
local brand
function init(args) brand = args[1] or "br_demo" end
function request()
  local p = math.random(1000)
  local body = string.format(
    '{"brand_id":"%s","product":{"product_id":"p%d","title":"Product %d"},"context":{"session_id":"s%d","country":"DE","locale":"de-DE"}}',
    brand, p, p, math.random(100000))
  return wrk.format("POST", "/api/collect/product-view", {
    ["Content-Type"] = "application/json",
    ["User-Agent"] = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"}, body)
end
