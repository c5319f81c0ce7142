# pickle is allowed here (allow_in).
import pickle


def dump(obj: object) -> bytes:
    return pickle.dumps(obj)
