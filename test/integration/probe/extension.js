// Test fixture: nothing to do. The test module runs beside it (extensionTestsPath).
exports.activate = function activate() {};
exports.deactivate = function deactivate() {};
