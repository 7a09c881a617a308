-- wrk script: each request asks for a random product from the slug list
-- in $SLUGS (one slug per line; a line starting with `/` is a path, such
-- as a product page's, asked for as it is). The requests are formatted once per
-- thread (with the -H headers), so the client spends its time sending,
-- not building strings in Lua: it shares the cores with the servers.
local slugs = {}
for line in io.lines(os.getenv("SLUGS")) do
  slugs[#slugs + 1] = line
end
math.randomseed(os.time() + (tonumber(tostring({}):match("0x(%x+)"), 16) or 0) % 100000)

local requests = {}

init = function(args)
  for i, slug in ipairs(slugs) do
    local path = slug:sub(1, 1) == "/" and slug or "/api/public/foundry/products/" .. slug
    requests[i] = wrk.format("GET", path)
  end
end

request = function()
  return requests[math.random(#requests)]
end
