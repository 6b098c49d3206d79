-- Register a QUEUED_WRITE job in its instance's FIFO. It runs in the same MULTI as
-- BullMQ's add of the job, so a job is in its instance's queue exactly when it is in
-- BullMQ: no worker can find a registered job that BullMQ does not know yet.
-- KEYS[1] instance hash, KEYS[2] instance's pending-job sorted set, KEYS[3] the job's result key
-- ARGV[1] job id, ARGV[2] '1' when the method creates missing instances (upsert),
-- ARGV[3] the refusal stored as the job's result when the instance does not exist ('' none)
-- (the instance was checked before the MULTI; this covers one removed in between)
-- Returns {seq, 1 when the job heads its instance's queue else 0}, {-1} when the instance
-- does not exist, or {-2} when the job already ran to its end (its result is stored): a job
-- id chosen up front (a delayed task's, a committed enqueue's) delivered again is not run again.
if redis.call('EXISTS', KEYS[3]) == 1 then return {-2} end
if ARGV[2] ~= '1' and redis.call('HEXISTS', KEYS[1], 'v') == 0 then
  if ARGV[3] ~= '' then redis.call('SET', KEYS[3], ARGV[3], 'EX', 604800) end
  return {-1}
end
-- idempotent per job id: a job registered twice keeps its first place
local seq = redis.call('ZSCORE', KEYS[2], ARGV[1])
if not seq then
  seq = redis.call('HINCRBY', KEYS[1], 'qs', 1)
  redis.call('ZADD', KEYS[2], seq, ARGV[1])
end
local head = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
return {tonumber(seq), head == ARGV[1] and 1 or 0}
