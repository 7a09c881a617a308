-- wrk script: each request asks for a random product from the slug list
-- in $SLUGS (one slug per line).
local slugs = {}
for line in io.lines(os.getenv("SLUGS")) do
  slugs[#slugs + 1] = line
end
math.randomseed(os.time() + (tonumber(tostring({}):match("0x(%x+)"), 16) or 0) % 100000)

request = function()
  return wrk.format("GET", "/api/public/foundry/products/" .. slugs[math.random(#slugs)])
end
