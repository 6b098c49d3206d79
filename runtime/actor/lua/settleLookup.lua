-- Settle a lookup key after a commit (see claimLookup.lua).
-- KEYS[1] the lookup key
-- ARGV[1] 'confirm': the reservation ARGV[2] becomes the confirmed '<id> <nonce>';
--         'release': the reservation ARGV[2] is deleted (its commit did not happen);
--         'drop': the key is deleted when its owner is ARGV[3] (the commit removed the lookup)
-- Returns 1 when it changed the key, else 0 (someone else's now: left alone).
local cur = redis.call('GET', KEYS[1])
if not cur then return 0 end
if ARGV[1] == 'drop' then
  if string.match(cur, '^(%S+)') ~= ARGV[3] then return 0 end
  redis.call('DEL', KEYS[1])
  return 1
end
if cur ~= ARGV[2] then return 0 end
if ARGV[1] == 'confirm' then
  redis.call('SET', KEYS[1], string.match(cur, '^(%S+ %S+)'))
else
  redis.call('DEL', KEYS[1])
end
return 1
