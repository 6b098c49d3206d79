-- Rotates a refresh token: the presented one consumed (its marker names the family), its successor stored,
-- only while the presented token is still as read.
-- KEYS[1] the presented token, KEYS[2] its consumed marker, KEYS[3] its successor, KEYS[4] the family's live set
-- ARGV[1] the presented token's record as read, ARGV[2] the family, ARGV[3] the successor's record,
-- ARGV[4] the successor's hash, ARGV[5] time-to-live (ms), ARGV[6] the presented token's hash
-- Returns 1 when rotated, 0 when the presented token changed or went meanwhile.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[5])
redis.call('SREM', KEYS[4], ARGV[6])
redis.call('SET', KEYS[3], ARGV[3], 'PX', ARGV[5])
redis.call('SADD', KEYS[4], ARGV[4])
redis.call('PEXPIRE', KEYS[4], ARGV[5])
return 1
