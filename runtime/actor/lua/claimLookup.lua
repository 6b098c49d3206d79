-- Reserve a lookup key for an instance before the commit that gives it the lookup.
-- A lookup key lives in its own slot, so it cannot change in the commit's script: it is
-- reserved here (owner, nonce, deadline), the instance committed, then the reservation
-- confirmed (settleLookup.lua). Who holds a lookup is the key's owner AND that owner's
-- committed lookup map: readers and later claimants check both.
-- Values: '<id>' or '<id> <nonce>' (confirmed), '<id> <nonce> <deadline ms>' (reserved).
-- KEYS[1] the lookup key
-- ARGV[1] the claiming instance id, ARGV[2] a fresh nonce, ARGV[3] how long the reservation
-- holds (ms), ARGV[4] a value of another owner the caller found not holding the lookup ('' none)
-- Returns {1, deadline} reserved (the commit must land before the deadline),
--         {0, current value, 1 when it is another's reservation still in flight else 0}.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local cur = redis.call('GET', KEYS[1])
local function take()
  local deadline = now + tonumber(ARGV[3])
  redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. ARGV[2] .. ' ' .. deadline)
  return {1, deadline}
end
if not cur or cur == ARGV[4] then return take() end
local owner, nonce, deadline = string.match(cur, '^(%S+) ?(%S*) ?(%S*)$')
if owner == ARGV[1] then return take() end
if deadline and deadline ~= '' and tonumber(deadline) >= now then return {0, cur, 1} end
return {0, cur, 0}
