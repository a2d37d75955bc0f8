import GridEngine
import EngineBridge

print("engine-cli, bridge protocol \(engineBridgeVersion)")
