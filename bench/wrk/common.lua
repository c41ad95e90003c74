-- Shared by the wrk scripts of bench/wrk.sh: the brands of a loadgen
-- brands file (WRK_BRANDS), and a pool of requests drawn once per thread,
-- so that wrk spends next to nothing on each request and the server's
-- cost is what the rates tell.
local path = os.getenv("WRK_BRANDS") or error("WRK_BRANDS is not set")
local f = assert(io.open(path))
local text = f:read("*a")
f:close()
brands = {}
for id, key, domain in text:gmatch('"brand_id":%s*"(.-)",%s*"api_key":%s*"(.-)",%s*"domain":%s*"(.-)"') do
  brands[#brands + 1] = { id = id, key = key, domain = domain }
end
assert(#brands > 0, "no brands in " .. path)

-- Products are loadgen's: p<rank>, of brand rank % #brands, 100,000 of them.
products = 100000

-- viewBody is a view of product rank as svc.js sends it, with a session of
-- a million; batch events add the "type" member.
function viewBody(rank, typed)
  local b = brands[(rank % #brands) + 1]
  local head = typed and '{"type":"product-view",' or '{'
  return b, head .. '"brand_id":"' .. b.id .. '","product":{"product_id":"p' .. rank .. '","sku":"SKU-' .. rank ..
    '","title":"Product ' .. rank .. '","url":"https://' .. b.domain .. '/p/' .. rank ..
    '"},"context":{"session_id":"s' .. math.random(1, 1000000) .. '","country":"DE","locale":"de-DE"}}'
end

local pool = {}
function fill(n, make)
  -- each thread has its own Lua state: seed it by its address, so pools differ
  math.randomseed(os.time() + (tonumber(tostring({}):match("0x(%x+)") or "0", 16) or 0) % 1000003)
  for i = 1, n do pool[i] = make() end
end
function request() return pool[math.random(1, #pool)] end
