"""Domain types and pure logic. Imports nothing else of Kenning's but itself."""
