import GlossPipeline
import Testing

/// `--shard auto`: the shard a scheduler's environment names, including a Slurm task submitted
/// again on its own, which must read its own shard and not another's or all of them.
struct ShardEnvironmentTests {
    static func shard(_ environment: [String: String], count: Int? = nil) -> String {
        do throws(ShardError) {
            return try Shard(environment: environment, count: count).description
        } catch {
            return "error: " + error.description
        }
    }

    @Test func aKubernetesIndexNeedsTheCount() {
        #expect(Self.shard(["JOB_COMPLETION_INDEX": "3"], count: 8) == "3/8")
        #expect(Self.shard(["JOB_COMPLETION_INDEX": "3"]).hasPrefix("error: JOB_COMPLETION_INDEX is set"))
    }

    @Test func aWholeSlurmArrayIsTheShardsFromItsFirstTask() {
        let fromZero = ["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "3"]
        #expect(Self.shard(fromZero) == "2/4")
        let fromOne = ["SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "4"]
        #expect(Self.shard(fromOne) == "3/4")
    }

    @Test func aSlurmTaskSubmittedAgainWithTheCountReadsItsOwnShard() {
        // sbatch --array=2,5 after tasks 2 and 5 of an array of 8 failed.
        let again = ["SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_COUNT": "2", "SLURM_ARRAY_TASK_MIN": "2", "SLURM_ARRAY_TASK_MAX": "5"]
        #expect(Self.shard(again, count: 8) == "5/8")
        let one = ["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "1", "SLURM_ARRAY_TASK_MIN": "2", "SLURM_ARRAY_TASK_MAX": "2"]
        #expect(Self.shard(one, count: 8) == "2/8")
        #expect(Self.shard(["SLURM_ARRAY_TASK_ID": "8"], count: 8).hasSuffix("the array's task ids are the shard numbers, from 0"))
    }

    @Test func aPartOfAnArrayWithoutTheCountIsRefusedNotReadAsAll() {
        let again = ["SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_COUNT": "2", "SLURM_ARRAY_TASK_MIN": "2", "SLURM_ARRAY_TASK_MAX": "5"]
        #expect(Self.shard(again).hasPrefix("error: the job array (tasks 2 to 5, 2 of them) is not a whole range of shards"))
        #expect(Self.shard(["SLURM_ARRAY_TASK_ID": "1"]).hasPrefix("error: SLURM_ARRAY_TASK_COUNT is not set"))
    }
}
