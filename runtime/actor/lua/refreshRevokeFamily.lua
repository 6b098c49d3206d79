-- Marks a refresh-token family revoked and deletes the tokens it held when read.
-- KEYS[1] the family's live set, KEYS[2] its revoked marker, KEYS[3..] the records of the tokens the set held
-- ARGV[1] time-to-live (ms), ARGV[2..] those tokens' hashes
-- Returns 1 when the set held no others (the family is revoked), 0 when a token joined it since it was read
-- (a rotation: the caller reads it again and repeats).
redis.call('SET', KEYS[2], '1', 'PX', ARGV[1])
local declared = {}
for i = 2, #ARGV do declared[ARGV[i]] = true end
local complete = 1
for _, h in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if not declared[h] then complete = 0 end
end
for i = 3, #KEYS do redis.call('DEL', KEYS[i]) end
if #ARGV > 1 then redis.call('SREM', KEYS[1], unpack(ARGV, 2)) end
if complete == 1 then redis.call('DEL', KEYS[1]) end
return complete
