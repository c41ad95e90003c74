-- Keyed batches of 100 views of one brand (POST /api/collect/batch).
dofile(os.getenv("WRK_DIR") .. "/common.lua")
function init()
  fill(200, function()
    local first = math.random(0, products - 1)
    local n = #brands
    local b, events = nil, {}
    for i = 1, 100 do
      local rank = math.random(0, math.floor(products / n) - 1) * n + first % n
      local body
      b, body = viewBody(rank, true)
      events[i] = body
    end
    return wrk.format("POST", "/api/collect/batch",
      { ["Content-Type"] = "application/json", ["X-svc-Api-Key"] = b.key },
      '{"events":[' .. table.concat(events, ",") .. "]}")
  end)
end
