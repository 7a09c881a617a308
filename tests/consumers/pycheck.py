"""Imports the Python code one generator wrote and parses bodies with it.

Run by tests/consumers/matrix.py with the venv's interpreter (the one the
generators and the generated code's runtime packages are installed in):

    python pycheck.py TOOL GENERATED_DIR SCHEMA_FILE BODY.json...

Prints one JSON object: {"import": null or the error, "warnings": [...],
"bodies": {BODY.json: null when accepted, else the error}}. A body is
parsed the way a reader of that generator's output would:
  datamodel-code-generator:  <root model>.model_validate_json(text, strict=True)
  openapi-generator-python:  <package>.models.product_response.ProductResponse.from_json(text)
  openapi-python-client:     <package>.models.product_response.ProductResponse.from_dict(json.loads(text))
"""

import importlib
import json
import pathlib
import sys
import traceback
import warnings


def last_line(error):
    """The exception as a reader sees it: its type and message, trimmed."""
    text = "".join(traceback.format_exception_only(type(error), error)).strip()
    return text if len(text) <= 2000 else text[:2000] + " …"


def package_dirs(root):
    """Folders under root that are Python packages with a models/ subpackage."""
    return sorted(p.parent.parent for p in root.rglob("models/__init__.py") if (p.parent.parent / "__init__.py").exists())


def datamodel_root(module, schema_file):
    """The model of the whole document: the BaseModel whose fields are the
    schema's top-level properties (the last such class: the generator
    defines the root after the models it refers to)."""
    import pydantic

    top = set(json.loads(pathlib.Path(schema_file).read_text())["properties"])
    candidates = [
        value
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, pydantic.BaseModel)
        and value.__module__ == module.__name__
        and set(value.model_fields) == top
    ]
    if not candidates:
        raise LookupError(f"no model in {module.__file__} has exactly the fields {sorted(top)}")
    return candidates[-1]


def load(tool, generated, schema_file):
    """Imports the generated code; returns a function that parses one body's text."""
    if tool == "datamodel-code-generator":
        sys.path.insert(0, str(generated))
        module = importlib.import_module("model")
        root = datamodel_root(module, schema_file)
        # Strict, as docs/json-schemas.md tells readers to parse: no "7" for 7.
        return lambda text: root.model_validate_json(text, strict=True)
    if tool in ("openapi-generator-python", "openapi-python-client"):
        found = package_dirs(generated)
        if len(found) != 1:
            raise LookupError(f"expected one generated package under {generated}, found {[str(p) for p in found]}")
        sys.path.insert(0, str(found[0].parent))
        package = importlib.import_module(found[0].name)
        # Every model, as `python -c "import <package>"` plus its models would.
        importlib.import_module(f"{found[0].name}.models")
        model = importlib.import_module(f"{found[0].name}.models.product_response").ProductResponse
        if tool == "openapi-generator-python":
            return model.from_json
        return lambda text: model.from_dict(json.loads(text))
    raise ValueError(f"unknown tool {tool}")


def main():
    tool, generated, schema_file, *bodies = sys.argv[1:]
    report = {"import": None, "warnings": [], "bodies": {}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            parse = load(tool, pathlib.Path(generated), schema_file)
        except BaseException as error:  # noqa: BLE001 - a generated module may raise anything
            report["import"] = last_line(error)
            parse = None
        if parse is not None:
            for body in bodies:
                try:
                    if parse(pathlib.Path(body).read_text()) is None:
                        raise ValueError("the parser returned None")
                    report["bodies"][body] = None
                except BaseException as error:  # noqa: BLE001
                    report["bodies"][body] = last_line(error)
    report["warnings"] = sorted({f"{w.category.__name__}: {w.message}" for w in caught})
    print(json.dumps(report))


if __name__ == "__main__":
    main()
