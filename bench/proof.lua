-- wrk script: proof reads over 1,000 products (run view.lua first so they exist).
-- Usage: wrk -t2 -c32 -d20s -s bench/proof.lua http://127.0.0.1:8080 -- BRAND_ID
local brand
function init(args) brand = args[1] or "br_demo" end
function request()
  return wrk.format("GET", string.format("/api/svc/product-proof?brand_id=%s&product_id=p%d", brand, math.random(1000)),
    {["User-Agent"] = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"})
end
