"""anki"""
