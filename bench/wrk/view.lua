-- Keyed single views (POST /api/collect/product-view), uniform over the products.
dofile(os.getenv("WRK_DIR") .. "/common.lua")
function init()
  fill(20000, function()
    local b, body = viewBody(math.random(0, products - 1), false)
    return wrk.format("POST", "/api/collect/product-view",
      { ["Content-Type"] = "application/json", ["X-svc-Api-Key"] = b.key }, body)
  end)
end
