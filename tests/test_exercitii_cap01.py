"""Verificările capitolului 01 acceptă răspunsurile corecte (în mai multe forme) și resping
greșelile tipice cu explicația potrivită."""

import torch

from curs_compilare.exercitii import cap01


def _numara(gm):
    return sum(1 for n in gm.graph.nodes if n.op in ("call_function", "call_method", "call_module"))


def test_ex1_accepta_backend_corect():
    vazute = []

    def backend(gm, exemple):
        vazute.append(_numara(gm))
        return gm.forward

    assert cap01.exercitiul_1(backend, vazute)


def test_ex1_accepta_gm_direct_si_numarare_cu_filtru():
    vazute = []

    def backend(gm, exemple):
        vazute.append(len([n for n in gm.graph.nodes if n.op not in ("placeholder", "output", "get_attr")]))
        return gm

    assert cap01.exercitiul_1(backend, vazute)


def test_ex1_respinge_none():
    vazute = []

    def backend(gm, exemple):
        vazute.append(_numara(gm))

    rezultat = cap01.exercitiul_1(backend, vazute)
    assert not rezultat
    assert "None" in rezultat.mesaj and "gm.forward" in rezultat.mesaj


def test_ex1_respinge_toate_nodurile():
    vazute = []

    def backend(gm, exemple):
        vazute.append(len(gm.graph.nodes))
        return gm.forward

    rezultat = cap01.exercitiul_1(backend, vazute)
    assert not rezultat and "placeholder" in rezultat.mesaj


def test_ex1_respinge_lista_goala_si_stub():
    rezultat = cap01.exercitiul_1(lambda gm, ex: gm.forward, [])
    assert not rezultat and "goală" in rezultat.mesaj

    def stub(gm, exemple):
        raise NotImplementedError

    rezultat = cap01.exercitiul_1(stub, [])
    assert not rezultat and "Traceback" not in rezultat.mesaj


def test_ex2_accepta_si_respinge():
    corect = {"a": "reduce-overhead", "b": "max-autotune", "c": "default", "d": "fullgraph"}
    assert cap01.exercitiul_2(corect)
    gresit = dict(corect, a="max-autotune")
    rezultat = cap01.exercitiul_2(gresit)
    assert not rezultat and "situația a" in rezultat.mesaj and "CUDA Graphs" in rezultat.mesaj
    rezultat = cap01.exercitiul_2(dict(corect, c="rapid"))
    assert not rezultat and "alege una dintre" in rezultat.mesaj
    assert not cap01.exercitiul_2({"a": "default"})
    assert not cap01.exercitiul_2(["default"])
