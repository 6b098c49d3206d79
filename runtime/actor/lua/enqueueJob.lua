-- Register a QUEUED_WRITE job in its instance's FIFO before it is handed to BullMQ.
-- KEYS[1] instance hash, KEYS[2] instance's pending-job sorted set, KEYS[3] the job's result key
-- ARGV[1] job id, ARGV[2] '1' when the method creates missing instances (upsert)
-- Returns the job's sequence number, -1 when the instance does not exist, or -2 when the
-- job already ran to its end (its result is stored): a job id chosen up front (a delayed
-- task's, a committed enqueue's) that is delivered again must not run again.
if redis.call('EXISTS', KEYS[3]) == 1 then return -2 end
if ARGV[2] ~= '1' and redis.call('HEXISTS', KEYS[1], 'v') == 0 then return -1 end
-- idempotent per job id: a job registered twice keeps its first place
local known = redis.call('ZSCORE', KEYS[2], ARGV[1])
if known then return tonumber(known) end
local seq = redis.call('HINCRBY', KEYS[1], 'qs', 1)
redis.call('ZADD', KEYS[2], seq, ARGV[1])
return seq
