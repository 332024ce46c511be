-- wrk: GET with the Authorization header rotating over the keys in BENCH_KEYS (comma-separated),
-- so the load looks like many clients rather than one hot key.
local keys = {}
for k in string.gmatch(os.getenv("BENCH_KEYS") or "", "[^,]+") do keys[#keys + 1] = k end
local i = 0
request = function()
  i = i + 1
  return wrk.format("GET", nil, { ["Authorization"] = "Bearer " .. keys[(i % #keys) + 1] }, nil)
end
