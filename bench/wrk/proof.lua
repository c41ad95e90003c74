-- Proof reads (GET /api/svc/product-proof), uniform over the products.
dofile(os.getenv("WRK_DIR") .. "/common.lua")
function init()
  fill(20000, function()
    local rank = math.random(0, products - 1)
    local b = brands[(rank % #brands) + 1]
    return wrk.format("GET", "/api/svc/product-proof?brand_id=" .. b.id .. "&product_id=p" .. rank)
  end)
end
