-- A refresh-token family's first token, unless the family was revoked meanwhile.
-- KEYS[1] the token's record, KEYS[2] the family's live set, KEYS[3] the family's revoked marker
-- ARGV[1] the token's record, ARGV[2] its hash, ARGV[3] time-to-live (ms)
-- Returns 1 when stored, 0 when the family is revoked.
if redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
redis.call('SADD', KEYS[2], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1
