import GridEngine
